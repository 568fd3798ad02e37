# delete the guard helper so the rewrite calls something else
del __sandbox_binop__
escaped = 'x' * 10**10
