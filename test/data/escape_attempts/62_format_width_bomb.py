# a 10 GB f-string through the format width
escaped = f'{1:>10000000000}'
