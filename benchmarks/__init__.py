"""What training and evals share: the benchmarks' fixed splits, how their files and questions are read, the metrics
and what every script prints. Both import it and neither imports the other; the runtime (agent/) imports none of
them."""
