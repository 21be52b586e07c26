"""scorekit.retrieval"""
