"""The editors' work: every write a person makes to a case, and every change of its status.

- `rights`: who may edit what, and the error every refusal raises.
- `history`: each saved state of a case, compared and authored.
- `drafts`: saving a case's content (create, edit, restore a version, confirm a translation).
- `ids`: the id a new case is offered, and whether an id is taken.
- `revisions`: the working copy of a published case, and writing it back on approval.
- `transitions`: the review workflow; also what an import and a restore do to statuses.
- `names`: public names of organisations and terms: who may change them, and merging.
- `roles`, `translation_state`: the editorial groups; whether the Korean is current.
- `comments`, `claims`, `presence`: the review desk: comments on a case's fields, who is
  reviewing it (and what its last review saw), who else has its page open.
"""
