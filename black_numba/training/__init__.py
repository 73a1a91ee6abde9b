"""Training data and networks: datagen, the data formats, the dataset reader, the trainer, labels and the Texel tuner."""
