"""scorekit.topics"""
