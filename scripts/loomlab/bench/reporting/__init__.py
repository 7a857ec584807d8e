"""What a run says: each load's tables, its section, the report (markdown, HTML, chart and
results.json), a Job's answer, and two reports compared."""
