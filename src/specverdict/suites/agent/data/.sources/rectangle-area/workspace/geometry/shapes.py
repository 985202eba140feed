def rectangle_area(w, h):
    return 2 * (w + h)
