"""Phase 2 of the n-word summarisation spec: a reinforcement-learned extract-then-compress policy
(sentence policy, chunk policy, REINFORCE with a BERTScore F1 reward; docs/rl.md). Needs torch."""
