"""A clinician's own patient records, a private tier beside the shared graph: formats read, findings linked to the
vocabularies' nodes, similar patients found, all on this machine (docs/records.md)."""
