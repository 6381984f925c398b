"""Experiment configs: ``base.py`` holds every field; one file per formulation."""
