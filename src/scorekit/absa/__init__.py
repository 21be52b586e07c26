"""scorekit.absa"""
