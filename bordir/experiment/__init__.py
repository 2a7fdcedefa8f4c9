"""What an experiment is and what it leaves on disk: its config, and the run directory's writer and reader.

- :mod:`~bordir.experiment.config`: :class:`~bordir.experiment.config.ExperimentConfig`
  (the settings that change results, and the operational ones), checked by
  :mod:`~bordir.experiment.validate`; :mod:`~bordir.experiment.seeds`: the runs' seeds;
- :mod:`~bordir.experiment.inputs`: the dataset, corpus and labels a config names;
- :mod:`~bordir.experiment.writer`: :class:`~bordir.experiment.writer.RunDirWriter`;
- :mod:`~bordir.experiment.rundir`: :func:`~bordir.experiment.rundir.read_run_dir` →
  :class:`~bordir.experiment.rundir.RunDir`.

Running an experiment is :mod:`bordir.runner`'s.
"""
