"""The evaluations: the tapered one and its weights, the network (NNUE) and its file, batch and CUDA evaluation."""
