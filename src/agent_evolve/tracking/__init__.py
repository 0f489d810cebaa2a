"""Run events for trackers (cycle started, task done, step done, gate decided, version accepted, budget spent),
adapted from the loop's progress events, and optional MLflow and W&B loggers behind extras."""
