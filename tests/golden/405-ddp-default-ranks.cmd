ddp --grad 100MB --compute 20ms --backward-share 0.5 --overlap 1
