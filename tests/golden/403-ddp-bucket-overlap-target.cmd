ddp --grad 14G --compute 300ms --ranks 8,16 --bucket 25MiB --overlap 80% --target 5%
