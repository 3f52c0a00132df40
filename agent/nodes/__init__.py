"""One module per graph node. Each reads state, does one thing, returns an update."""
