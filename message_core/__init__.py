"""What both chat kinds (channels_app, private_app) share, below both of them.

Text and entity rules, caps, history windows, the entity / forward-header / draft TL
shapes, and the RPC context helpers (the viewer, the origin session, the users and
chats an answer carries). Nothing here knows which kind of chat a message lives in.
"""
