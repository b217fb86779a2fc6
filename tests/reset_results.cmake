# Clears the case results so expected_verdicts never reads a stale run.
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
