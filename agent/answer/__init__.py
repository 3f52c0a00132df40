"""The answer a run gives: its sentences (compose), what its records leave unnamed of the question (naming), and
the ladder of rules that says whether it answers or declines, and why (status)."""
