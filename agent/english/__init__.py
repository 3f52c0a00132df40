"""English without a model: the claim grammar, questions read as statements, the project's word lists, spelling
correction over the corpus's words, and the language of a question."""
