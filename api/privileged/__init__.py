"""The api's one way to what needs root: verbs run by the control service, asked over a local socket.

The api serves HTTP, checks who asks and validates what they ask; a change that runs the storage tools
is a verb (a function of the fixed set in :mod:`api.privileged.verbs`), carried to the control service
(arcvsa-metrics, which already runs the reconcilers and the poller as root) and answered with its value or
its typed error (:mod:`api.privileged.wire`). Nothing else crosses: no command line, no file name the
verb did not declare. Where no socket is configured (the tests, a developer's machine) the same lines are
handled in the api's own process, so every call is still serialised and checked the same way.
"""
