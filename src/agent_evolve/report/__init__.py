"""The run report: one self-contained HTML page (curves, lineage, diffs, skills, task matrix, cost) and PNG figures."""
