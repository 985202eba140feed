from pager.pages import page, page_count
