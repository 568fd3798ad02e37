# a caught exception's traceback frame to climb out of the sandbox
try:
    1 / 0
except ZeroDivisionError as e:
    escaped = e.__traceback__.tb_frame.f_back.f_globals
