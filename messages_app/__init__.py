"""The messages.* surface above both chat kinds.

Every method that takes "any peer" is registered here once: the handler decodes the
request, resolves the peer's kind once (``peers``) and calls the domain of that kind
(``channels_app`` or ``private_app``). What belongs to a dialog of either kind and is
ordered or stored across both (pins, cloud drafts) lives here too.
"""
