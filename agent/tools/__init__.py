"""Clients and local models: one module per external source, the shared HTTP base, the offline index and models.

Tools know nothing of nodes or the graph.
"""
