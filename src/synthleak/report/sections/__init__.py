"""The report's sections, one module per audit stage that has one, each exporting
``section(result) -> Section | None`` (:func:`synthleak.report.document.build_document` lists
them in reading order)."""
