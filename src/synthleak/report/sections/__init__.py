"""The report's sections, one module per audit stage that has one, named after the stage (the
attribute-inference stages share ``attribute``), each exporting ``section(result) -> Section |
None``, or ``SECTIONS`` when it has several; :func:`synthleak.report.document.stage_sections`
finds them from the stage list and puts them in reading order."""
