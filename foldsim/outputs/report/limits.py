"""The page's size bounds, in a module with no imports so the command line can show them as
defaults without loading the scorers."""

#: datasets with at most this many items in the browser get their missing step images drawn (~30 ms each)
DRAW_LIMIT = 100
#: the item browser holds at most this many items (metrics and plots always cover every item)
MAX_ITEMS = 2000
#: bytes of media a page embeds as data URIs before leaving the rest out (--assets has no bound)
INLINE_BUDGET = 48 * 2**20
