allreduce --alpha 0.005ms --beta 1.6Tb/s --ranks 8 --sizes 8:8G:x32 --algo ring,dbtree,rd,rabenseifner
