from mindformers import Trainer

trainer = Trainer(args="configs/run_llama_7b.yaml")
trainer.train()
