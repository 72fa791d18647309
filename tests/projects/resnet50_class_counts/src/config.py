"""Training hyper-parameters, as a plain dict (older model zoo code)."""
config = {
    "class_num": 1000,
    "lr": 0.1,
}
small_config = {
    "class_num": 1000,
}
