"""scorekit.summarization"""
