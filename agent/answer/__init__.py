"""The answer a run gives: the Answer built from a run's state (assemble), its quotes and their roles (compose), the
answer line in its three forms (lines), what its records leave unnamed of the question (naming), each paper's
reading (papers, papers_text), the ladder of rules that says whether it answers or declines, and why (status), and
the answer as the terminal prints it (text)."""
