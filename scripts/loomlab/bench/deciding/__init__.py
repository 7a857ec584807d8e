"""Who won: the verdict from paired rounds, the answer per load, the crossover across a sweep."""
