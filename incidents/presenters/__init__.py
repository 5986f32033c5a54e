"""presenters"""
