"""What a comparison says in words and in documents: the decision in words, the verdict on one
metric, the HTML report and the LaTeX table."""
