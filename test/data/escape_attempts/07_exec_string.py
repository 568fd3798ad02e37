# exec a string so the import is invisible to the AST check
exec("import os\nescaped = os.getcwd()")
