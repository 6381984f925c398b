"""Reports: statistics over seeds (``stats``), the tables a sweep's report is made of
(``tables``), figures (``plotting``), the translation report, score statistics."""
