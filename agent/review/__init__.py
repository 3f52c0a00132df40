"""A scientist's review of the court's ledger before the answer (agent/nodes/review.py): edits, corrections."""
