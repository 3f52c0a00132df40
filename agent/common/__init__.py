"""Small helpers every layer shares, none of which knows the graph: text utilities (`text`), JSON Lines with errors
that name the line (`jsonl`), the one redaction function (`redact`), what reaches the terminal (`terminal`) and running
a coroutine from synchronous code (`aio`)."""
