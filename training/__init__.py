"""Training and fitting code: datasets with their split rules, the stance judges' training scripts, calibration.

Run from the repository root (`python -m training.train_cross_stance`, ...). Nothing under `agent/` imports
this package: the runtime ships only the weights and tables these scripts write into `agent/models/`.
"""
