"""The team server: `sparkit serve` (an HTTP API in the shape of the LangGraph Server / Agent Protocol) and
`sparkit worker` (any number, on any machine) over one PostgreSQL database that holds the users, threads and runs,
the run queue (Procrastinate), the graph's checkpoints (langgraph-checkpoint-postgres), each run's settings and
events, and the HTTP pacing and response cache every worker shares. Installed with the `service` extra.

The server never runs the graph: it validates a request, stores the run and defers a job; a worker takes the job,
runs the graph with PostgreSQL checkpoints and writes the run's events, which the server streams back. A worker that
dies mid-run leaves its job `doing` with a stale heartbeat; another worker's watchdog puts it back in the queue and
the run resumes from its last checkpoint.
"""
