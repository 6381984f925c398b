"""Each experiment's claims: experiments/lab/claims/NAME.py decides the rows of
experiments/FINDINGS.md that experiments/NAME.py's record reads (its ``findings``), with
the rules they are decided by. The experiment file stays a config; the history of the
rules (revised, voided, why) is in the record's README."""
