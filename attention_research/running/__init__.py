"""Running: what turns training into a run on disk and in a process: work directories
(``workdir``), checkpoints, the directory lock, preemption, the persistent compilation
cache, config files, members and their names, sweeps and adoption."""
