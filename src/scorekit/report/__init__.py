"""Presentation: terminal/CSV/Markdown/LaTeX tables, HTML reports, plots, run history."""
