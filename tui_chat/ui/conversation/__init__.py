"""The app's conversation, undrawn: the controller (`controller.py`), the only writer of what
the user is doing with it, and the view it draws through (`view.py`), which the conversation
screen implements."""
