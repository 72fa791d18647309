"""Evaluation uses the same pipeline but profiles nothing."""
from src.dataset import create_dataset

dataset = create_dataset("./mnist", batch_size=1)
