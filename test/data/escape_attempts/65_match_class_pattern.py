# a match class pattern reads attributes by keyword
match 1:
    case int(real=r):
        escaped = r
