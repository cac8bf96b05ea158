speedup --comm 45ms --compute 300ms
