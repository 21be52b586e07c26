"""scorekit.neural: one offline encoder backend (``encoder``) and the neural metrics built on it
(``bertscore``, ``clipscore``). torch/transformers are imported lazily, so importing scorekit
stays light when the ``neural`` extra is not installed."""
