"""Your own papers: a library in SPARKIT_HOME that grows from PDFs, bibliographies, Zotero and JSONL corpora."""
