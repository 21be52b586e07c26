"""Topic-model metrics (topic-metrics.md): semantic coherence (SC), distinctiveness (SD), diversity
(VD, CD, SemDiv), the Overall score, gensim-exact NPMI / C_V / UMass, topic diversity, and the
meta-evaluation against human or LLM ratings. Start with :func:`evaluate_topics`."""

from scorekit.topics.coherence import coherence, topic_diversity
from scorekit.topics.evaluate import evaluate_topics
from scorekit.topics.semantic import SemanticParams, score_embeddings

__all__ = ["SemanticParams", "coherence", "evaluate_topics", "score_embeddings", "topic_diversity"]
