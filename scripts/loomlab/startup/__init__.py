"""`./lab startup`: JVM vs JVM with an AOT cache vs native, measured the same way, and where each
one's time to the first answer goes (__main__ runs it; launches, phases, training, flame, tables)."""
