"""The groups of a run's settings, one module per concern; agent.config assembles them into the Context."""
