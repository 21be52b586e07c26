"""scorekit.generation"""
