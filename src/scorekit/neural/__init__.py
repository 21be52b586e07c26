"""scorekit.neural"""
