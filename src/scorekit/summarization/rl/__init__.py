"""Phase 2 of the n-word summarisation spec: a reinforcement-learned extract-then-compress policy.

A :class:`~scorekit.summarization.rl.policy.SentencePolicyModel` scores sentences from
``[SBERT embedding ⊕ TextRank score]`` and picks K of them; a
:class:`~scorekit.summarization.rl.policy.ChunkPolicyModel` scores the phrases (chunks) of those
sentences, corrected by their SBERT similarity to the document, and fills an n-word budget.
Training is REINFORCE with a moving-average baseline, one article per episode, the reward being
BERTScore F1 against the reference summary. Needs torch (the ``neural`` extra).
"""
